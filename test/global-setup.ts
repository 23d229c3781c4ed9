// End-to-end tests spawn the built CLI, so build it once from the current sources.
import { buildCli } from '../scripts/build.mjs';

export default async function setup(): Promise<void> {
  await buildCli();
}
