/** /settings/*: body limit, a signed-in session, CSRF checks on every state-changing request. */
import { settingsBodyLimit } from "@/lib/auth/body_limit.ts";
import { settingsSession } from "@/lib/auth/settings_session.ts";

export const handler = [settingsBodyLimit, settingsSession({ required: true })];
