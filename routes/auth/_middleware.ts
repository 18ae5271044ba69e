/** /auth/*: body limit, optional session, CSRF checks on every POST. */
import { settingsBodyLimit } from "@/lib/app/body_limit.ts";
import { settingsSession } from "@/lib/app/settings_session.ts";
import { hubOnly } from "@/lib/app/hub_only.ts";

export const handler = [hubOnly, settingsBodyLimit, settingsSession({ required: false })];
