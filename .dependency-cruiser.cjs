/**
 * The import rules of src/ (dependency-cruiser; `npm run lint` runs it, test/unit/repo/architecture.test.ts
 * too). The folders form a pipeline ranked from the bottom up (architecture.json): a module may
 * import its own folder and folders ranked below it, never above, never a sibling of its rank,
 * and no import may close a cycle. The stages' folders and the store's are contracts: another
 * folder enters one only through its `index.ts`. The simulator stands apart: it imports nothing of
 * the product, and only the CLI (its `simulate` and `demo` commands) imports it.
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
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
