// nsed's promptfoo provider (README "promptfoo"): give promptfoo this file as a `file://`
// provider. It loads the built provider from dist/ (in a packed nsed, always there); a checkout
// that has not been built yet builds dist/ once, as bin/nsed.cjs does.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/promptfoo.js', import.meta.url);
const build = new URL('../scripts/build.mjs', import.meta.url);

async function load() {
  try {
    return await import(dist.href);
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' || existsSync(fileURLToPath(dist)) || !existsSync(fileURLToPath(build)))
      throw err;
    process.stderr.write('nsed: building dist/ from this checkout (once; npm run build rebuilds it)\n');
    await (await import(build.href)).buildCli();
    return import(dist.href);
  }
}

export default (await load()).default;
