/** /auth/*: body limit, optional session, CSRF checks on every POST. */
import { settingsBodyLimit } from "@/lib/app/body_limit.ts";
import { settingsSession } from "@/lib/app/settings_session.ts";

export const handler = [settingsBodyLimit, settingsSession({ required: false })];
