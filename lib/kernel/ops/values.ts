/**
 * What DAG nodes evaluate to (numbers, booleans and strings in JS; profiles, solids and instances
 * as manifold-3d objects), and what the walk lends an op while it computes one node. manifold-3d
 * is a type here only.
 */
import type { CrossSection, Manifold } from "manifold-3d";
import { EvalError, type EvalErrorCode, type EvalErrorReason } from "../eval_errors.ts";
import type { Mat4 } from "../transforms.ts";

/** A 2D profile. */
export interface ProfileValue {
  kind: "profile";
  cs: CrossSection;
}
/** One solid. */
export interface SolidValue {
  kind: "solid";
  m: Manifold;
}
/** One solid drawn at every transform (column-major 4×4). */
export interface InstancesValue {
  kind: "instances";
  m: Manifold;
  transforms: Mat4[];
}
/** A named, colored part of the output. */
export interface PartValue {
  kind: "part";
  name: string;
  color: string;
  m: Manifold;
  transforms: Mat4[];
  pointer: string;
}
/** The output. */
export interface AssemblyValue {
  kind: "assembly";
  parts: PartValue[];
}
/** What a geometry member may reference. */
export type Geometry = ProfileValue | SolidValue | InstancesValue;
/** What a node evaluates to. */
export type Value = number | boolean | string | Geometry | PartValue | AssemblyValue;

/** Anything that owns WASM memory. */
export interface Deletable {
  delete(): void;
}

/** Deletes `object`, ignoring one already deleted (a bug elsewhere must not fail cleanup twice). */
export function safeDelete(object: Deletable): void {
  try {
    object.delete();
  } catch {
    // Already deleted.
  }
}

/** What the walk lends the context of the node it computes. */
export interface WalkAccess {
  /** The value of an evaluated, referenced node. */
  valueOf(id: string): Value;
  /** Keeps node `id` alive as long as the node being computed (its value aliases `id`'s). */
  hold(id: string): void;
  /** Makes `object` the computed node's, deleted when that node is freed. */
  own(object: Deletable): void;
  /** Makes `object` a temporary, deleted when the node is computed. */
  temp(object: Deletable): void;
}

/** Throws an EvalError pointing into the DAG. */
export function evalFail(
  code: EvalErrorCode,
  reason: EvalErrorReason,
  pointer: string,
  message: string,
): never {
  throw new EvalError(code, reason, message, { pointer });
}
