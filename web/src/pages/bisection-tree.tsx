import { bisectionTree, type RunInFlight, type RunNode } from "../run-tree.js";

function Branch({ nodes }: { nodes: RunNode[] }) {
  return (
    <ul class="tree">
      {nodes.map((node) => (
        <li key={node.run.id} data-run={node.run.id}>
          {node.run.prNumbers.map((n) => `#${n}`).join(", ")} <code class="run-id">{node.run.id}</code>
          {node.children.length > 0 && <Branch nodes={node.children} />}
        </li>
      ))}
    </ul>
  );
}

export function BisectionTree({ runs }: { runs: RunInFlight[] }) {
  const roots = bisectionTree(runs);
  if (roots.length === 0) return null;
  return (
    <section aria-labelledby="bisections-heading">
      <h2 id="bisections-heading">Bisections</h2>
      <p>A failed batch is split in halves, each tested on its own, until the PR that breaks it is found.</p>
      <Branch nodes={roots} />
    </section>
  );
}
