// Injected into dist/fast.cjs (scripts/build.mjs), a CommonJS file, for the modules that name
// themselves with import.meta.url (createRequire); there, __filename is the bundle's own path.
/* global __filename -- this file runs only inside the CommonJS bundle, where Node defines it */
import { pathToFileURL } from 'node:url';

export const __nsedFileUrl = pathToFileURL(__filename).href;
