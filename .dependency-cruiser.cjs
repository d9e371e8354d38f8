/**
 * The import rules of src/ (dependency-cruiser; `npm run lint` runs it, test/unit/repo/architecture.test.ts
 * too). The folders form a pipeline ranked from the bottom up (architecture.json): a module may
 * import its own folder and folders ranked below it, never above, never a sibling of its rank,
 * and no import may close a cycle. The stages' folders and the store's are contracts: another
 * folder enters one only through its `index.ts`. The simulator stands apart: it imports nothing of
 * the product, and only the CLI (its `simulate` and `demo` commands) imports it. A command loads
 * what it runs: Redis, BullMQ and prom-client only in the commands that talk to Redis, when they run.
 */

const { ranks } = require('./architecture.json');

/** Ranks at or above `rank`: a sibling counts as one, so neither imports the other. */
const atOrAbove = (rank) => {
  const index = ranks.indexOf(rank);
  return ranks.filter(
    (other, i) => other !== rank && (i >= index || (other.siblings ?? []).includes(rank.name)),
  );
};

const upward = ranks
  .map((rank) => {
    const above = atOrAbove(rank);
    return {
      name: `${rank.name}-imports-no-higher-rank`,
      comment: `${rank.name} may import only what ranks below it (architecture.json)`,
      severity: 'error',
      from: { path: rank.paths },
      to: { path: above.flatMap((other) => other.paths) },
    };
  })
  .filter((rule) => rule.to.path.length > 0);

/** Stages (and the store) whose folder another folder enters only through its index.ts. */
const STAGES = ['extract', 'normalize', 'store'];

const doors = STAGES.map((stage) => ({
  name: `${stage}-entered-by-its-index`,
  comment: `another folder imports src/${stage}/ only through src/${stage}/index.ts, its contract`,
  severity: 'error',
  from: { path: '^src/', pathNot: [`^src/${stage}/`, '^src/simulator/'] },
  to: {
    path: `^src/${stage}/`,
    pathNot: `^src/${stage}/index\\.ts$`,
  },
}));

/** The packages only a command that talks to Redis (or serves the worker's metrics) loads. */
const REDIS_PACKAGES = '^node_modules/(bullmq|ioredis|prom-client)/';
/** What loads them: the worker's modules and the Redis copy of the checkpoints. */
const REDIS_MODULES = ['^src/worker/', '^src/sync/checkpoints/redis-store\\.ts$'];

const loadedWhenRun = [
  {
    name: 'redis-packages-only-in-the-worker',
    comment:
      'BullMQ, ioredis and prom-client are imported by src/worker/ and the Redis checkpoint store only (types aside), so that no other module loads them',
    severity: 'error',
    from: { path: '^src/', pathNot: REDIS_MODULES },
    to: { path: REDIS_PACKAGES, dependencyTypesNot: ['type-only'] },
  },
  {
    name: 'redis-modules-loaded-when-run',
    comment:
      'another folder loads src/worker/ and the Redis checkpoint store with import() where a command runs them (or imports their types): `sync`, `status` or `--help` never load Redis',
    severity: 'error',
    from: { path: '^src/', pathNot: '^src/worker/' },
    to: { path: REDIS_MODULES, dependencyTypesNot: ['type-only', 'dynamic-import'] },
  },
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'a cycle makes two modules one: split what they share into a module below both',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...upward,
    ...doors,
    {
      name: 'simulator-imports-no-product',
      comment: 'the simulator stands for the real service: it imports nothing of the code it tests',
      severity: 'error',
      from: { path: '^src/simulator/' },
      to: { path: '^src/', pathNot: '^src/simulator/' },
    },
    {
      name: 'only-the-cli-imports-the-simulator',
      comment: 'its `simulate` and `demo` commands; the settings table shows its defaults',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/simulator/', '^src/cli/', '^src/config/'] },
      to: { path: '^src/simulator/' },
    },
    ...loadedWhenRun,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // src/, and the packages a rule names (leaves: node_modules is not followed).
    includeOnly: ['^src/', REDIS_PACKAGES],
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
