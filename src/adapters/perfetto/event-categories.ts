/**
 * A track event's category as a string id: its one interned category, or its categories
 * (interned or inline) joined by commas, each distinct join interned once.
 */
import type { StringTable } from "../common/string-table.ts";
import type { PacketChildren } from "./packet-children.ts";
import type { SequenceState } from "./sequence-state.ts";

/** A node of the join cache: string ids of categories so far → the next node. */
interface JoinNode {
  /** The joined category's string id, once some event has ended its list here. */
  id: number;
  next: Map<number, JoinNode> | null;
}

export class EventCategories {
  private readonly joined = new Map<string, number>();
  /**
   * Interned lists by their categories' string ids, id by id. In the corpus's real Chromium trace
   * half the events name no category and 6% two or more; an array per such event (flatMap), and a
   * join and a lookup per list, were ~5% of its parser thread.
   */
  private readonly byIds: JoinNode = { id: -1, next: null };

  constructor(private readonly strings: StringTable) {}

  /** The category id of the event whose packet's children are `c` (-1: none). */
  of(c: PacketChildren | null, state: SequenceState): number {
    if (!c) return -1;
    // One interned category, the common case: its string id is the joined one (both are
    // interned in `strings`), without building arrays and a joined string per event.
    if (c.categoryNames.length === 0 && c.categoryIids.length === 1)
      return state.categories.get(c.categoryIids[0]!) ?? -1;
    if (c.categoryNames.length === 0) return this.ofIids(c.categoryIids, state);
    return this.ofNames(c.categoryNames);
  }

  /** Interned categories: the ids the sequence gives them now, joined once per distinct list. */
  private ofIids(iids: readonly number[], state: SequenceState): number {
    let node = this.byIds;
    let known = 0;
    for (const iid of iids) {
      const id = state.categories.get(iid);
      if (id === undefined) continue; // an iid the sequence never defined names nothing
      known++;
      node.next ??= new Map();
      let next = node.next.get(id);
      if (next === undefined) {
        next = { id: -1, next: null };
        node.next.set(id, next);
      }
      node = next;
    }
    if (known === 0) return -1;
    if (node.id < 0) {
      const names: string[] = [];
      for (const iid of iids) {
        const id = state.categories.get(iid);
        if (id !== undefined) names.push(this.strings.get(id));
      }
      node.id = this.ofNames(names);
    }
    return node.id;
  }

  private ofNames(names: readonly string[]): number {
    if (names.length === 0) return -1;
    const joined = names.join(",");
    let id = this.joined.get(joined);
    if (id === undefined) {
      id = this.strings.id(joined);
      this.joined.set(joined, id);
    }
    return id;
  }
}
