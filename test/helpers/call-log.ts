/**
 * One log of calls across several test doubles, in the order they happened: wrap each port with
 * `record(log, 'name', port)` and assert on `log` to pin the order of calls between ports.
 */
export function record<T extends object>(log: string[], name: string, port: T): T {
  return new Proxy(port, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        log.push(`${name}.${String(property)}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
