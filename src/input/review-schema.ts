import review from '../../schemas/review.schema.json' with { type: 'json' };

/**
 * `--schema review`: the code-review schema nsed ships (docs/ci.md "Findings on the changed lines"),
 * the same file the package holds as `schemas/review.schema.json` for a `--schema FILE` or an
 * editor. Its answer holds findings at `/findings`, which `--schema review` names for
 * `--findings` unless another pointer is given. A file named `review` is read as `./review`.
 */
export const REVIEW_SCHEMA_NAME = 'review';

export const REVIEW_SCHEMA: Readonly<Record<string, unknown>> = review;
