/**
 * `@cad-configurator/sdk`: the framework-free core — session tokens (`SessionClient`), rendering
 * (`RenderClient`), mesh decoding, the geometry cache, the three.js `SceneView`, the configurator's
 * stylesheet, the clients of one configurator together, share links (`createShareUrl`,
 * `restoreFromUrl`), the cart snapshot (`renderSnapshot`), "View in AR" (`browserArMode`,
 * `detectArSupport`, `viewInAr`; the USDZ exporter loads on first use), instant colour picks
 * (`colorRoutes`, `previewColors`), and the DAG and parameter-schema helpers (`substitute`,
 * `validateParameterValue`, the types).
 */
export * from "../../../lib/client/mod.ts";
export {
  type ConfiguratorClientOptions,
  type ConfiguratorClients,
  createConfiguratorClients,
} from "../../../lib/client/configurator_clients.ts";
export { SceneView, type SceneViewOptions } from "../../../lib/client/scene_view.ts";
export { type ColorRoutes, colorRoutes, previewColors } from "../../../lib/client/color_preview.ts";
export { CONFIGURATOR_CSS } from "../../../lib/client/configurator_styles.ts";
export { errorTitle } from "../../../lib/client/error_titles.ts";
export { parameterMessage } from "../../../lib/client/parameter_message.ts";
export type { SignedConfiguration } from "../../../lib/client/configuration_request.ts";
export {
  createShareUrl,
  decodeShareValue,
  encodeShareValue,
  readShareValue,
  restoreFromUrl,
  SHARE_FORMAT,
  SHARE_PARAM,
  type ShareNote,
  type ShareNoteReason,
  type ShareProject,
  type ShareRestore,
  shareUrl,
} from "../../../lib/client/share_link.ts";
export {
  blobToDataUrl,
  ISOMETRIC_DIRECTION,
  isometricFrame,
  renderSnapshot,
  settledResult,
  SNAPSHOT_DEFAULTS,
  SNAPSHOT_SIZE_LIMITS,
  SnapshotError,
  type SnapshotErrorCode,
  type SnapshotFrame,
  type SnapshotOptions,
} from "../../../lib/client/snapshot.ts";
export {
  type ArEnvironment,
  type ArMode,
  arModeOf,
  type ArSupport,
  browserArEnvironment,
  browserArMode,
  detectArSupport,
} from "../../../lib/client/ar_support.ts";
export {
  AR_BLOB_LIFETIME_MS,
  ArError,
  type ArErrorCode,
  type ArLaunch,
  type ArLaunchOptions,
  sceneViewerIntentUrl,
  viewInAr,
} from "../../../lib/client/ar_launch.ts";
export { mapParameterInputs, parameterValues, substitute } from "../../../lib/dag/substitute.ts";
export {
  completeParameterValues,
  type ParameterDescriptor,
  type ParameterKind,
  type ParameterSchema,
  validateParameterSchema,
  validateParameterValue,
} from "../../../lib/dag/parameter_schema.ts";
export type {
  Dag,
  DagNode,
  OpNode,
  ParameterInputNode,
  ParameterValue,
  Ref,
} from "../../../lib/dag/dag_types.ts";
export { DagError } from "../../../lib/dag/dag_errors.ts";
