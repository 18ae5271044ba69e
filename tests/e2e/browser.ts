/** Headless Debian Chromium through playwright-core, with the flags this environment needs. */
import { type Browser, chromium } from "playwright-core";

/** Where screenshots go (a CI artifact folder, ignored by git). */
export const ARTIFACTS = new URL("../../test-artifacts/", import.meta.url).pathname;

/** Launches headless Chromium; fails with a clear message when it is not installed. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";
  try {
    await Deno.stat(executablePath);
  } catch {
    throw new Error(
      `Chromium not found at ${executablePath}: apt-get install -y chromium (the CI script does)`,
    );
  }
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  return await chromium.launch({
    executablePath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--use-angle=swiftshader",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
