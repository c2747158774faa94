/** The CommonJS door that piscina loads for the ES module `module` (a path relative to it). */
export function threadDoor(module: string): string;
