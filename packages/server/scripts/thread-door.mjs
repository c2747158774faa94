// The CommonJS door of a thread module, written beside it by scripts/bundle.mjs.

/**
 * A thread module's CommonJS door: it starts loading the module at once (as piscina's own load
 * would) and answers `door[name]` with a task function that waits for the module and calls its
 * export of that name, so a module that fails to load fails each task with its own error.
 * `__esModule` makes piscina take the door as it is; `then` stays undefined so the door is not
 * taken for a promise.
 */
export function threadDoor(module) {
  return `'use strict';
// Made by scripts/bundle.mjs: piscina's entry for ${module} (see scripts/thread-door.mjs).
const loading = import(${JSON.stringify(module)});
// A failed load is reported by each task that needs the module.
loading.catch(() => {});
const tasks = new Map();
module.exports = new Proxy(
  {},
  {
    get(_, name) {
      if (name === '__esModule') return true;
      if (typeof name !== 'string' || name === 'then') return undefined;
      let task = tasks.get(name);
      if (!task) {
        task = async (...args) => {
          const fn = (await loading)[name];
          if (typeof fn !== 'function') throw new TypeError(\`${module} exports no task \${name}\`);
          return fn(...args);
        };
        tasks.set(name, task);
      }
      return task;
    },
  },
);
`;
}
