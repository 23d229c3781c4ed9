import pkg from '../../package.json' with { type: 'json' };

/**
 * The MCP Registry's published server.json schema this file follows (its 2025-12-11 release,
 * the latest at the time of writing: https://github.com/modelcontextprotocol/registry,
 * docs/reference/server-json).
 */
export const SERVER_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

/**
 * server.json, what the MCP Registry lists nsed by: the npm package of this name and version,
 * started as `nsed mcp` over stdio. Its name is package.json's `mcpName`, which the registry
 * checks against the published package; the settings a host may pass are the ones every
 * command reads. Written by `npm run docs`, so a version bump cannot leave it behind.
 */
export function serverJson(): string {
  const doc = {
    $schema: SERVER_SCHEMA,
    name: pkg.mcpName,
    description: 'A council of models (an NSED deliberation) as MCP tools: ask, wait, steer, read the verdict',
    version: pkg.version,
    packages: [
      {
        registryType: 'npm',
        registryBaseUrl: 'https://registry.npmjs.org',
        identifier: pkg.name,
        version: pkg.version,
        runtimeHint: 'npx',
        transport: { type: 'stdio' },
        packageArguments: [{ type: 'positional', value: 'mcp' }],
        environmentVariables: [
          { name: 'NSED_URL', description: 'the orchestrator base URL', isRequired: false },
          {
            name: 'NSED_TOKEN',
            description: 'the bearer token for the orchestrator',
            isRequired: false,
            isSecret: true,
          },
          {
            name: 'NSED_MCP_TOOLS',
            description: 'serve only these tools, comma-separated (default: all)',
            isRequired: false,
          },
        ],
      },
    ],
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
