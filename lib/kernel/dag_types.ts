/**
 * The TypeScript shape of a DAG v1 document (docs/dag.md). These types describe a document that
 * has passed `validateDag`; evaluation and substitution rely on them.
 */

/** The DAG format version this kernel reads. */
export const DAG_VERSION = 1;

/** A reference to another node by id. */
export interface Ref {
  ref: string;
}

/** A number literal or a reference to a number-valued node. */
export type NumArg = number | Ref;
/** A boolean literal or a reference to a boolean-valued node. */
export type BoolArg = boolean | Ref;
/** A string literal or a reference to a string-valued node. */
export type StrArg = string | Ref;
/** A 2-vector of number arguments. */
export type Vec2Arg = [NumArg, NumArg];
/** A 3-vector of number arguments. */
export type Vec3Arg = [NumArg, NumArg, NumArg];

/** A literal parameter value: Int/Float → number, Bool → boolean, Enum/Color → string. */
export type ParameterValue = number | boolean | string;

/** A parameter slot; `value` is set by substitution. */
export interface ParameterInputNode {
  op: "ParameterInput";
  parameter: string;
  fallback: ParameterValue;
  value?: ParameterValue;
}

/** n-ary arithmetic. */
export interface NaryNode {
  op: "add" | "mul" | "min" | "max";
  args: NumArg[];
}
/** Binary arithmetic. */
export interface BinaryNode {
  op: "sub" | "div";
  a: NumArg;
  b: NumArg;
}
/** Clamp a number into [min, max]. */
export interface ClampNode {
  op: "clamp";
  value: NumArg;
  min: NumArg;
  max: NumArg;
}
/** Round to a multiple of `step`. */
export interface RoundNode {
  op: "round";
  value: NumArg;
  step?: NumArg;
  mode?: "nearest" | "floor" | "ceil";
}
/** Compare two values into a boolean. */
export interface CompareNode {
  op: "compare";
  test: "lt" | "le" | "gt" | "ge" | "eq" | "ne";
  a: NumArg | BoolArg | StrArg;
  b: NumArg | BoolArg | StrArg;
}
/** Choose between two values of one type. */
export interface SelectNode {
  op: "select";
  cond: BoolArg;
  then: NumArg | BoolArg | StrArg | Ref;
  else: NumArg | BoolArg | StrArg | Ref;
}

/** 2D rectangle. */
export interface RectangleNode {
  op: "rectangle";
  size: Vec2Arg;
  center?: BoolArg;
}
/** 2D rectangle with rounded corners. */
export interface RoundedRectangleNode {
  op: "roundedRectangle";
  size: Vec2Arg;
  radius: NumArg;
  segments?: NumArg;
  center?: BoolArg;
}
/** 2D circle. */
export interface CircleNode {
  op: "circle";
  radius: NumArg;
  segments?: NumArg;
}
/** 2D simple polygon. */
export interface PolygonNode {
  op: "polygon";
  points: Vec2Arg[];
}

/** Box primitive. */
export interface BoxNode {
  op: "box";
  size: Vec3Arg;
  center?: BoolArg;
}
/** Cylinder or cone primitive. */
export interface CylinderNode {
  op: "cylinder";
  height: NumArg;
  radius: NumArg;
  radiusTop?: NumArg;
  segments?: NumArg;
  center?: BoolArg;
}
/** Sphere primitive. */
export interface SphereNode {
  op: "sphere";
  radius: NumArg;
  segments?: NumArg;
}
/** Linear extrusion of a profile along +Z. */
export interface ExtrudeNode {
  op: "extrude";
  profile: Ref;
  height: NumArg;
  twist?: NumArg;
  scaleTop?: Vec2Arg;
  divisions?: NumArg;
  center?: BoolArg;
}
/** Revolution of a profile about the Z axis. */
export interface RevolveNode {
  op: "revolve";
  profile: Ref;
  segments?: NumArg;
  degrees?: NumArg;
}
/** n-ary union or intersection. */
export interface BooleanNaryNode {
  op: "union" | "intersection";
  children: Ref[];
}
/** Difference: base minus every subtracted solid. */
export interface DifferenceNode {
  op: "difference";
  base: Ref;
  subtract: Ref[];
}
/** Convex hull of solids. */
export interface HullNode {
  op: "hull";
  children: Ref[];
}
/** Translation. */
export interface TranslateNode {
  op: "translate";
  child: Ref;
  offset: Vec3Arg;
}
/** Rotation in degrees about X, then Y, then Z. */
export interface RotateNode {
  op: "rotate";
  child: Ref;
  degrees: Vec3Arg;
}
/** Non-uniform scale. */
export interface ScaleNode {
  op: "scale";
  child: Ref;
  factor: Vec3Arg;
}
/** Mirror across the plane through the origin with this normal. */
export interface MirrorNode {
  op: "mirror";
  child: Ref;
  normal: Vec3Arg;
}
/** Instances along a line. */
export interface LinearRepeatNode {
  op: "linearRepeat";
  child: Ref;
  count: NumArg;
  step: Vec3Arg;
}
/** Instances on an XY grid. */
export interface GridRepeatNode {
  op: "gridRepeat";
  child: Ref;
  count: Vec2Arg;
  step: Vec2Arg;
}
/** Instances around the Z axis. */
export interface PolarRepeatNode {
  op: "polarRepeat";
  child: Ref;
  count: NumArg;
  degrees?: NumArg;
}
/** A named, colored part of the output. */
export interface PartNode {
  op: "part";
  child: Ref;
  name: StrArg;
  color: StrArg;
}
/** The output: a list of parts. */
export interface AssemblyNode {
  op: "assembly";
  parts: Ref[];
}

/** Any DAG node. */
export type DagNode =
  | ParameterInputNode
  | NaryNode
  | BinaryNode
  | ClampNode
  | RoundNode
  | CompareNode
  | SelectNode
  | RectangleNode
  | RoundedRectangleNode
  | CircleNode
  | PolygonNode
  | BoxNode
  | CylinderNode
  | SphereNode
  | ExtrudeNode
  | RevolveNode
  | BooleanNaryNode
  | DifferenceNode
  | HullNode
  | TranslateNode
  | RotateNode
  | ScaleNode
  | MirrorNode
  | LinearRepeatNode
  | GridRepeatNode
  | PolarRepeatNode
  | PartNode
  | AssemblyNode;

/** Every node op name. */
export type DagOp = DagNode["op"];

/** A DAG document. */
export interface Dag {
  dag: 1;
  nodes: Record<string, DagNode>;
  output: string;
}

/** Whether a value is a `{ref}` reference. */
export function isRef(value: unknown): value is Ref {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    typeof (value as Ref).ref === "string" && Object.keys(value).length === 1;
}

/**
 * The ids a node's members reference, in member order, once per reference (vectors, lists of
 * children and polygon points hold references at most two levels deep).
 *
 * @example
 * ```ts
 * referencedIds({ op: "union", children: [{ ref: "a" }, { ref: "b" }] }); // ["a", "b"]
 * ```
 */
export function referencedIds(node: DagNode): string[] {
  const out: string[] = [];
  for (const value of Object.values(node as unknown as Record<string, unknown>)) {
    if (isRef(value)) out.push(value.ref);
    else if (Array.isArray(value)) {
      for (const item of value) {
        if (isRef(item)) out.push(item.ref);
        else if (Array.isArray(item)) {
          for (const inner of item) if (isRef(inner)) out.push(inner.ref);
        }
      }
    }
  }
  return out;
}
