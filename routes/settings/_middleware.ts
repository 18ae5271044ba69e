/** /settings/*: body limit, a signed-in session, CSRF checks on every state-changing request. */
import { settingsBodyLimit } from "@/lib/app/body_limit.ts";
import { settingsSession } from "@/lib/app/settings_session.ts";

export const handler = [settingsBodyLimit, settingsSession({ required: true })];
