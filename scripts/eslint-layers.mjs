// ESLint rule layers/arrows: reports an import (static, type-only, re-export or a literal
// dynamic import) that runs against the arrows of scripts/layers.mjs, where it is written, so an
// editor shows it at once. scripts/check-imports.mjs checks the whole graph for circles.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { arrowViolation, resolveSpecifier } from './layers.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const arrows = {
  meta: {
    type: 'problem',
    docs: { description: 'imports follow the layer arrows of scripts/layers.mjs' },
    schema: [],
    messages: { against: "'{{spec}}' runs against the arrows: {{why}}" },
  },
  create(context) {
    const fromAbs = context.filename;
    const from = path.relative(ROOT, fromAbs).split(path.sep).join('/');
    const check = (source) => {
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const to = resolveSpecifier(ROOT, fromAbs, source.value);
      const why = to === undefined ? undefined : arrowViolation(from, to);
      if (why !== undefined) context.report({ node: source, messageId: 'against', data: { spec: source.value, why } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export default { meta: { name: 'layers' }, rules: { arrows } };
