/**
 * @peculiar/x509 loads tsyringe, which refuses to start without a Reflect metadata API. We do not
 * use decorators; this minimal WeakMap-backed stand-in satisfies tsyringe without adding the
 * `reflect-metadata` package. It only fills in what is missing, so a real polyfill wins.
 */
type Prop = string | symbol | undefined;
const store = new WeakMap<object, Map<Prop, Map<unknown, unknown>>>();

function metadataOf(target: object, prop: Prop, create: boolean): Map<unknown, unknown> | undefined {
  let byProp = store.get(target);
  if (!byProp && create) store.set(target, (byProp = new Map<Prop, Map<unknown, unknown>>()));
  let entries = byProp?.get(prop);
  if (!entries && create && byProp) byProp.set(prop, (entries = new Map<unknown, unknown>()));
  return entries;
}

const reflect = Reflect as unknown as Record<string, unknown>;
reflect.defineMetadata ??= (key: unknown, value: unknown, target: object, prop?: string | symbol): void => {
  metadataOf(target, prop, true)!.set(key, value);
};
reflect.getOwnMetadata ??= (key: unknown, target: object, prop?: string | symbol): unknown => metadataOf(target, prop, false)?.get(key);
reflect.getMetadata ??= (key: unknown, target: object, prop?: string | symbol): unknown => {
  for (let current: object | null = target; current; current = Object.getPrototypeOf(current) as object | null) {
    const entries = metadataOf(current, prop, false);
    if (entries?.has(key)) return entries.get(key);
  }
  return undefined;
};
