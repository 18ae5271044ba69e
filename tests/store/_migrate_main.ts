/** A process that opens the KV file `Deno.args[0]` and runs the start-up project migration. */
import { openKv } from "@/lib/store/kv.ts";
import { migrateGlobalProjects } from "@/lib/store/project_scope_migration.ts";

const kv = await openKv(Deno.args[0]);
// Both processes start migrating together: each says it is ready, then waits for the start file.
await Deno.writeTextFile(`${Deno.args[1]}.ready.${Deno.pid}`, "");
while (true) {
  try {
    await Deno.stat(Deno.args[1]);
    break;
  } catch {
    await new Promise((r) => setTimeout(r, 5));
  }
}
console.log(JSON.stringify(await migrateGlobalProjects(kv)));
kv.close();
