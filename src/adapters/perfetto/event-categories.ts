/**
 * A track event's category as a string id: its one interned category, or its categories
 * (interned or inline) joined by commas, each distinct join interned once.
 */
import type { StringTable } from "../common/string-table.ts";
import type { PacketChildren } from "./packet-children.ts";
import type { SequenceState } from "./sequence-state.ts";

export class EventCategories {
  private readonly joined = new Map<string, number>();

  constructor(private readonly strings: StringTable) {}

  /** The category id of the event whose packet's children are `c` (-1: none). */
  of(c: PacketChildren | null, state: SequenceState): number {
    if (!c) return -1;
    // One interned category, the common case: its string id is the joined one (both are
    // interned in `strings`), without building arrays and a joined string per event.
    if (c.categoryNames.length === 0 && c.categoryIids.length === 1)
      return state.categories.get(c.categoryIids[0]!) ?? -1;
    const names =
      c.categoryNames.length > 0
        ? c.categoryNames
        : c.categoryIids.flatMap((iid) => {
            const id = state.categories.get(iid);
            return id === undefined ? [] : [this.strings.get(id)];
          });
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
