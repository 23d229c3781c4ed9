// server.json, what the MCP Registry lists nsed by: written by `npm run docs` from package.json,
// shipped in the package, and valid against the registry's published server.json schema (its
// 2025-12-11 release). The schema below restates, for the fields nsed uses, the rules of that
// release (modelcontextprotocol/registry, docs/reference/server-json/server.schema.json, and its
// official-registry requirements): a reverse-DNS name with one slash, a description of at most 100
// characters, an exact version (no range, not "latest"), and each package's registry type,
// identifier, exact version and transport, with no other keys than the schema's.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import ajvModule from 'ajv';
import { describe, expect, it } from 'vitest';
import { generatedFiles } from '../../src/docs/generate.js';
import { SERVER_SCHEMA } from '../../src/docs/server-json.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** An exact version: what the registry accepts where it rejects ranges, wildcards and "latest". */
const EXACT_VERSION = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+([-+][0-9A-Za-z.-]+)?$',
};

const INPUT_FIELDS = {
  description: { type: 'string' },
  isRequired: { type: 'boolean' },
  isSecret: { type: 'boolean' },
  format: { enum: ['string', 'number', 'boolean', 'filepath'] },
  value: { type: 'string' },
  default: { type: 'string' },
  placeholder: { type: 'string' },
  choices: { type: 'array', items: { type: 'string' } },
};

const REGISTRY_RULES = {
  type: 'object',
  required: ['$schema', 'name', 'description', 'version', 'packages'],
  properties: {
    $schema: { const: SERVER_SCHEMA },
    name: { type: 'string', minLength: 3, maxLength: 200, pattern: '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$' },
    description: { type: 'string', minLength: 1, maxLength: 100 },
    version: EXACT_VERSION,
    packages: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['registryType', 'identifier', 'version', 'transport'],
        properties: {
          registryType: { const: 'npm' },
          registryBaseUrl: { const: 'https://registry.npmjs.org' },
          identifier: { type: 'string', minLength: 1 },
          version: { ...EXACT_VERSION, not: { const: 'latest' } },
          runtimeHint: { type: 'string' },
          transport: {
            type: 'object',
            required: ['type'],
            properties: { type: { const: 'stdio' } },
          },
          packageArguments: {
            type: 'array',
            items: {
              type: 'object',
              required: ['type'],
              properties: { ...INPUT_FIELDS, type: { const: 'positional' }, valueHint: { type: 'string' } },
              anyOf: [{ required: ['value'] }, { required: ['valueHint'] }],
            },
          },
          environmentVariables: {
            type: 'array',
            items: {
              type: 'object',
              required: ['name'],
              properties: { ...INPUT_FIELDS, name: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' } },
            },
          },
        },
      },
    },
  },
};

interface PackageJson {
  name: string;
  version: string;
  mcpName: string;
  files: string[];
  bin: Record<string, string>;
}

describe('server.json for the MCP Registry', () => {
  it('is the committed file npm run docs writes, and the package ships it', async () => {
    const committed = await readFile(`${ROOT}server.json`, 'utf8');
    expect(committed).toBe(generatedFiles()['server.json']);
    const pkg = JSON.parse(await readFile(`${ROOT}package.json`, 'utf8')) as PackageJson;
    expect(pkg.files).toContain('server.json');
  });

  it("is valid against the registry's server.json rules", async () => {
    const doc = JSON.parse(await readFile(`${ROOT}server.json`, 'utf8')) as unknown;
    const validate = new ajvModule.default({ allErrors: true, strict: false }).compile(REGISTRY_RULES);
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  });

  it('names the package of package.json: its name, version and mcpName, started as nsed mcp', async () => {
    const doc = JSON.parse(await readFile(`${ROOT}server.json`, 'utf8')) as {
      name: string;
      version: string;
      packages: Array<{ identifier: string; version: string; packageArguments: Array<{ value: string }> }>;
    };
    const pkg = JSON.parse(await readFile(`${ROOT}package.json`, 'utf8')) as PackageJson;
    // The registry refuses an npm package whose package.json mcpName is not the server's name.
    expect(doc.name).toBe(pkg.mcpName);
    expect(doc.version).toBe(pkg.version);
    expect(doc.packages).toHaveLength(1);
    expect(doc.packages[0]?.identifier).toBe(pkg.name);
    expect(doc.packages[0]?.version).toBe(pkg.version);
    // npx runs the package's one bin, nsed, with the arguments: `nsed mcp`.
    expect(Object.keys(pkg.bin)).toEqual(['nsed']);
    expect(doc.packages[0]?.packageArguments.map((a) => a.value)).toEqual(['mcp']);
  });

  it('the rules refuse what the registry refuses: a range, "latest", a long description, a bare name', () => {
    const validate = new ajvModule.default({ allErrors: true, strict: false }).compile(REGISTRY_RULES);
    const good = JSON.parse(generatedFiles()['server.json'] ?? '{}') as Record<string, unknown>;
    const pkg = (good['packages'] as Array<Record<string, unknown>>)[0] ?? {};
    expect(validate(good)).toBe(true);
    expect(validate({ ...good, version: '^0.1.0' })).toBe(false);
    expect(validate({ ...good, packages: [{ ...pkg, version: 'latest' }] })).toBe(false);
    expect(validate({ ...good, description: 'x'.repeat(101) })).toBe(false);
    expect(validate({ ...good, name: 'nsed' })).toBe(false);
    expect(validate({ ...good, packages: [{ ...pkg, registry_type: 'npm' }] })).toBe(false);
  });
});
