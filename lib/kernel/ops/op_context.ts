/**
 * What an op's `evaluate` works with: its node's members (`MemberReader`: read through the op's
 * spec and checked against the same ranges as literals), the manifold runtime, geometry
 * arguments, and ownership of the WASM objects it makes. The walk (`lib/kernel/dag_walk.ts`)
 * builds one context per node.
 *
 * manifold-3d is a type here only: the runtime arrives with the context.
 */
import type { CrossSection, Manifold } from "manifold-3d";
import { isRef } from "../../dag/dag_types.ts";
import type { EvalLimits } from "../eval_limits.ts";
import type { ManifoldRuntime } from "../manifold_runtime.ts";
import { isIdentity } from "../transforms.ts";
import { MemberReader } from "./member_reader.ts";
import type { Member } from "./member_rules.ts";
import {
  type Deletable,
  evalFail,
  type Geometry,
  type InstancesValue,
  type ProfileValue,
  type SolidValue,
  type WalkAccess,
} from "./values.ts";

/** The evaluation context of one node of an op with members `K`. */
export type OpContext<K extends string = string> = NodeContext<K>;

/** One node's evaluation context (see the module comment). */
export class NodeContext<K extends string = string> extends MemberReader<K> {
  /** The manifold-3d classes of this evaluation. */
  readonly rt: ManifoldRuntime;

  /** A context for `node` (at `pointer`) of an op with these `members` (its spec's). */
  constructor(
    members: Readonly<Record<K, Member>>,
    node: Readonly<Record<string, unknown>>,
    pointer: string,
    rt: ManifoldRuntime,
    limits: EvalLimits,
    walk: WalkAccess,
  ) {
    super(members, node, pointer, limits, walk);
    this.rt = rt;
  }

  // -------------------------------------------------------------------------------------------
  // Geometry

  /** A referenced profile, solid or instances. */
  geometryAt(arg: unknown, pointer: string): Geometry {
    const value = isRef(arg) ? this.arg(arg, pointer) : undefined;
    if (
      typeof value !== "object" ||
      (value.kind !== "profile" && value.kind !== "solid" && value.kind !== "instances")
    ) {
      return evalFail("invalid_dag", "type_mismatch", pointer, "Expected a reference to geometry.");
    }
    return value;
  }

  /** A profile member. */
  profile(member: K): CrossSection {
    const value = this.geometryAt(this.raw(member), this.at(member));
    if (value.kind !== "profile") {
      evalFail("invalid_dag", "type_mismatch", this.at(member), "Expected a profile.");
    }
    return value.cs;
  }

  /** A referenced solid or instances. */
  solidOrInstancesAt(arg: unknown, pointer: string): SolidValue | InstancesValue {
    const value = this.geometryAt(arg, pointer);
    if (value.kind === "profile") {
      evalFail("invalid_dag", "type_mismatch", pointer, "Expected a solid, not a profile.");
    }
    return value;
  }

  /** A solid-or-instances member. */
  solidOrInstances(member: K): SolidValue | InstancesValue {
    return this.solidOrInstancesAt(this.raw(member), this.at(member));
  }

  /** Positioned copies of a solid or instances (temporaries of this node). */
  copies(value: SolidValue | InstancesValue, pointer: string): Manifold[] {
    if (value.kind === "solid") return [value.m];
    this.checkTriangles(value.m.numTri() * value.transforms.length, pointer);
    return value.transforms.map((t) => this.temp(value.m.transform(t)));
  }

  /** A solid or instances as one solid (instances merged by a union, since they may overlap). */
  solidAt(arg: unknown, pointer: string): Manifold {
    const value = this.solidOrInstancesAt(arg, pointer);
    if (value.kind === "solid") return value.m;
    if (value.transforms.length === 1 && isIdentity(value.transforms[0])) return value.m;
    const merged = this.temp(this.rt.Manifold.union(this.copies(value, pointer)));
    return this.checkSolid(merged, pointer);
  }

  /** Makes `object` this node's (deleted when the node is freed). */
  own<T extends Deletable>(object: T): T {
    this.walk.own(object);
    return object;
  }

  /** Makes `object` a temporary (deleted as soon as this node is computed). */
  temp<T extends Deletable>(object: T): T {
    this.walk.temp(object);
    return object;
  }

  /** This node's new profile. */
  newProfile(cs: CrossSection): ProfileValue {
    return { kind: "profile", cs: this.own(cs) };
  }

  /** This node's new solid, checked. */
  newSolid(m: Manifold): SolidValue {
    this.own(m);
    return { kind: "solid", m: this.checkSolid(m, this.pointer) };
  }

  /** A solid manifold-3d made without error, within the triangle limit. */
  checkSolid(m: Manifold, pointer: string): Manifold {
    const status = m.status();
    if (status !== "NoError") {
      evalFail("render_failed", "geometry_failed", pointer, `manifold-3d reported ${status}.`);
    }
    this.checkTriangles(m.numTri(), pointer);
    return m;
  }

  /** At most the triangle limit. */
  checkTriangles(count: number, pointer: string): void {
    if (count > this.limits.maxTriangles) {
      evalFail(
        "invalid_dag",
        "too_many_triangles",
        pointer,
        `${count} triangles exceed the limit of ${this.limits.maxTriangles}.`,
      );
    }
  }

  /**
   * Bounds the work (and WASM memory) of one boolean or hull before it runs: its inputs together
   * may hold at most twice the triangle limit. Each input is within the limit already, but 256 of
   * them need not be, and the result is only checked once it exists.
   */
  checkWork(inputs: Manifold[]): void {
    let total = 0;
    for (const m of inputs) total += m.numTri();
    const max = 2 * this.limits.maxTriangles;
    if (total > max) {
      evalFail(
        "invalid_dag",
        "too_many_triangles",
        this.pointer,
        `The inputs hold ${total} triangles; one operation takes at most ${max}.`,
      );
    }
  }

  /** At most the instance limit. */
  checkInstances(count: number): void {
    if (count > this.limits.maxInstancesPerPart) {
      evalFail(
        "invalid_dag",
        "too_many_instances",
        this.pointer,
        `${count} instances exceed the limit of ${this.limits.maxInstancesPerPart}.`,
      );
    }
  }
}
