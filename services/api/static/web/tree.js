// Layered layout of a lineage graph: generations left to right, each family's leaves stacked
// top to bottom in depth-first order, a parent centred on its children. A child with several
// parents hangs under its oldest one (its other edges are still drawn). O(levels + edges).

export function layout(nodes, edges) {
  const ids = new Set(nodes.map((n) => n.id));
  const parentOf = new Map();
  for (const { parent, child } of edges) {
    if (!ids.has(parent) || !ids.has(child)) continue;
    if (!parentOf.has(child) || parent < parentOf.get(child)) parentOf.set(child, parent);
  }
  const children = new Map(nodes.map((n) => [n.id, []]));
  for (const [child, parent] of parentOf) children.get(parent).push(child);
  for (const list of children.values()) list.sort((a, b) => a - b);
  const roots = nodes.map((n) => n.id).filter((id) => !parentOf.has(id)).sort((a, b) => a - b);

  const place = new Map();
  let nextRow = 0;
  // Iterative post-order walk: lineages can be thousands of generations deep.
  for (const root of roots) {
    const stack = [[root, 0, false]];
    while (stack.length) {
      const [id, depth, done] = stack.pop();
      const kids = children.get(id);
      if (done || !kids.length) {
        const row = kids.length
          ? (place.get(kids[0]).row + place.get(kids[kids.length - 1]).row) / 2
          : nextRow++;
        place.set(id, { depth, row });
        continue;
      }
      stack.push([id, depth, true]);
      for (let i = kids.length - 1; i >= 0; i -= 1) stack.push([kids[i], depth + 1, false]);
    }
  }
  return place;
}
