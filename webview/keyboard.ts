import type { PositionedNode } from './layout';

// Pure spatial keyboard navigation between DAG nodes: Up/Down move between layers to the nearest
// node horizontally, Left/Right within a layer, Home/End to the first/last node in reading order.

export type NavKey = 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight' | 'Home' | 'End';

const NAV_KEYS = new Set<string>(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End']);

export function isNavKey(key: string): key is NavKey {
  return NAV_KEYS.has(key);
}

type NodeBox = Pick<PositionedNode, 'id' | 'x' | 'y' | 'width' | 'layer'>;

const centerX = (n: NodeBox): number => n.x + n.width / 2;

/** Nodes in reading order: by layer, then left to right. */
export function readingOrder(nodes: Iterable<NodeBox>): NodeBox[] {
  return [...nodes].sort((a, b) => a.layer - b.layer || a.x - b.x || a.id.localeCompare(b.id));
}

/** The node the key moves to from `current` (or the first node when nothing is focused); undefined = stay. */
export function nextNode(nodes: ReadonlyMap<string, NodeBox>, current: string | undefined, key: NavKey): string | undefined {
  const order = readingOrder(nodes.values());
  if (order.length === 0) return undefined;
  const from = current !== undefined ? nodes.get(current) : undefined;
  if (!from || key === 'Home') return order[0].id;
  if (key === 'End') return order[order.length - 1].id;
  const cx = centerX(from);
  if (key === 'ArrowLeft' || key === 'ArrowRight') {
    const sameLayer = order.filter((n) => n.layer === from.layer);
    const i = sameLayer.findIndex((n) => n.id === from.id);
    const next = sameLayer[key === 'ArrowLeft' ? i - 1 : i + 1];
    return next?.id;
  }
  const down = key === 'ArrowDown';
  // The nearest layer in that direction that has nodes, then the horizontally closest node in it.
  let best: NodeBox | undefined;
  for (const n of order) {
    if (down ? n.layer <= from.layer : n.layer >= from.layer) continue;
    if (!best) {
      best = n;
      continue;
    }
    const layerGap = Math.abs(n.layer - from.layer) - Math.abs(best.layer - from.layer);
    if (layerGap < 0 || (layerGap === 0 && Math.abs(centerX(n) - cx) < Math.abs(centerX(best) - cx))) best = n;
  }
  return best?.id;
}
