/**
 * Short, human titles for the problem `code`s a configurator shows (docs/errors.md), for UI layers
 * built on the framework-free core (the Preact islands and the npm package's React components).
 *
 * Runs in browsers: no Deno APIs here.
 */

/** A short, human title for an error code. */
export function errorTitle(code: string): string {
  switch (code) {
    case "origin_not_allowed":
    case "origin_mismatch":
      return "This site is not allowed to show this configurator";
    case "network_error":
      return "The render service could not be reached";
    case "token_expired":
    case "token_revoked":
    case "invalid_token":
      return "The session has ended";
    case "budget_exhausted":
      return "The render budget of this session is spent";
    case "unknown_key":
    case "key_revoked":
      return "This configurator's key is not valid";
    case "project_not_allowed":
      return "This project is not available here";
    case "invalid_parameters":
      return "A value is not valid";
    case "python_load_failed":
      return "The design runtime could not start";
    case "view_unavailable":
      return "The 3D view could not start";
    case "design_error":
      return "The design could not be built with these values";
    default:
      return "Something went wrong";
  }
}
