/**
 * The manifold-3d WASM module, loaded once per thread (each render worker has its own) and only
 * when first needed, so importing the kernel costs nothing until something evaluates.
 *
 * Manifolds and CrossSections live in WASM memory, which the JS garbage collector never frees:
 * every one must be `.delete()`d. A runtime made with `trackObjects` counts the live ones (every
 * object a manifold-3d call hands back, minus those deleted), which is how the tests prove that
 * evaluation — including its failure paths — leaks nothing.
 */
import Module from "manifold-3d";
import type { CrossSection, Manifold, ManifoldToplevel } from "manifold-3d";

/** The manifold-3d entry points evaluation uses. */
export interface ManifoldRuntime {
  /** The Manifold class (3D solids). */
  readonly Manifold: ManifoldToplevel["Manifold"];
  /** The CrossSection class (2D profiles). */
  readonly CrossSection: ManifoldToplevel["CrossSection"];
  /** The whole module, for what the classes do not cover. */
  readonly module: ManifoldToplevel;
  /** Live WASM objects created through this runtime, when made with `trackObjects`. */
  liveObjects?(): number;
}

/** Options of `createManifoldRuntime`. */
export interface ManifoldRuntimeOptions {
  /** Count live WASM objects (tests): slower, and patches this module instance's prototypes. */
  trackObjects?: boolean;
}

let shared: Promise<ManifoldRuntime> | undefined;

/**
 * This thread's runtime, initialised on first use; later calls share it. A failed load is not
 * cached, so the next call tries again.
 *
 * @example
 * ```ts
 * const runtime = await getManifoldRuntime();
 * const cube = runtime.Manifold.cube([1, 1, 1]);
 * cube.delete();
 * ```
 */
export function getManifoldRuntime(): Promise<ManifoldRuntime> {
  if (!shared) {
    shared = createManifoldRuntime();
    shared.catch(() => shared = undefined);
  }
  return shared;
}

/**
 * A new, independent module instance (its own WASM memory). Production uses
 * `getManifoldRuntime`; tests use this to count objects without touching the shared one.
 */
export async function createManifoldRuntime(
  options: ManifoldRuntimeOptions = {},
): Promise<ManifoldRuntime> {
  const module = await Module();
  module.setup();
  if (!options.trackObjects) {
    return { Manifold: module.Manifold, CrossSection: module.CrossSection, module };
  }
  return trackedRuntime(module);
}

/** An embind handle: anything a manifold-3d call returns that owns WASM memory. */
interface WasmHandle {
  delete(): void;
  isDeleted(): boolean;
}

function isHandle(value: unknown): value is WasmHandle {
  return typeof value === "object" && value !== null &&
    typeof (value as WasmHandle).delete === "function" &&
    typeof (value as WasmHandle).isDeleted === "function";
}

/**
 * Wraps the classes so that every handle a static call, a constructor or an instance method
 * returns is remembered until it is deleted. A Set (not a counter) keeps this exact even when
 * the library's JS glue hands back an object that one of its own inner calls already returned.
 */
function trackedRuntime(module: ManifoldToplevel): ManifoldRuntime {
  const live = new Set<WasmHandle>();
  const remember = (value: unknown): unknown => {
    if (isHandle(value)) live.add(value);
    else if (Array.isArray(value)) { for (const item of value) if (isHandle(item)) live.add(item); }
    return value;
  };
  // Instance methods live on the embind prototypes; reach them through a throwaway object.
  // (embind's `isDeleted` is not in the published types.)
  const probes = [
    module.Manifold.cube(1),
    module.CrossSection.square(1),
  ] as unknown as WasmHandle[];
  for (const probe of probes) {
    const proto = Object.getPrototypeOf(probe) as Record<string, unknown>;
    probe.delete();
    if (Object.hasOwn(proto, "__tracked")) continue;
    Object.defineProperty(proto, "__tracked", { value: true });
    for (const name of publicMethods(proto)) {
      const original = proto[name] as (...args: unknown[]) => unknown;
      proto[name] = function (this: WasmHandle, ...args: unknown[]) {
        return remember(original.apply(this, args));
      };
    }
    const originalDelete = proto.delete as (this: WasmHandle) => void;
    proto.delete = function (this: WasmHandle) {
      live.delete(this);
      originalDelete.call(this);
    };
  }
  return {
    Manifold: trackClass(module.Manifold, remember),
    CrossSection: trackClass(module.CrossSection, remember),
    module,
    liveObjects: () => live.size,
  };
}

/** Own function members worth wrapping: not the constructor, `delete`, or embind internals. */
function publicMethods(target: Record<string, unknown>): string[] {
  const skip = new Set(["constructor", "delete", "isDeleted", "prototype", "length", "name"]);
  return Object.getOwnPropertyNames(target).filter((name) =>
    !skip.has(name) && !name.startsWith("_") && !name.startsWith("__") &&
    typeof Object.getOwnPropertyDescriptor(target, name)?.value === "function"
  );
}

/** A Proxy of a class whose constructor and static methods remember what they return. */
function trackClass<C extends typeof Manifold | typeof CrossSection>(
  cls: C,
  remember: (value: unknown) => unknown,
): C {
  const statics = new Set(publicMethods(cls as unknown as Record<string, unknown>));
  return new Proxy(cls, {
    construct(target, args, newTarget) {
      return remember(Reflect.construct(target, args, newTarget)) as object;
    },
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof key !== "string" || !statics.has(key)) return value;
      const fn = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => remember(fn.apply(target, args));
    },
  });
}
