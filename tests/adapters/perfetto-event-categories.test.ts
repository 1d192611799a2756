/**
 * EventCategories: an event's interned categories joined by commas, in the event's order, each
 * distinct join interned once; the join cache is keyed by the categories' strings, so iids rebound
 * after an incremental state clear give their new names.
 */
import { describe, expect, test } from "bun:test";
import { StringTable } from "../../src/adapters/common/string-table.ts";
import { EventCategories } from "../../src/adapters/perfetto/event-categories.ts";
import type { PacketChildren } from "../../src/adapters/perfetto/packet-children.ts";
import { SequenceState } from "../../src/adapters/perfetto/sequence-state.ts";

const children = (categoryIids: number[], categoryNames: string[] = []) =>
  ({ categoryIids, categoryNames }) as unknown as PacketChildren;

function setup() {
  const strings = new StringTable();
  const state = new SequenceState();
  const intern = (iid: number, name: string) => state.categories.set(iid, strings.id(name));
  const categories = new EventCategories(strings);
  const of = (iids: number[], names: string[] = []) => {
    const id = categories.of(children(iids, names), state);
    return id < 0 ? null : strings.get(id);
  };
  return { state, intern, of };
}

describe("EventCategories", () => {
  test("joins interned categories in the event's order, skipping iids never defined", () => {
    const { intern, of } = setup();
    intern(1, "v8");
    intern(2, "devtools.timeline");
    intern(3, "blink");
    expect(of([1])).toBe("v8");
    expect(of([2, 1])).toBe("devtools.timeline,v8");
    expect(of([1, 2])).toBe("v8,devtools.timeline");
    expect(of([2, 1])).toBe("devtools.timeline,v8");
    expect(of([2, 9, 1, 3])).toBe("devtools.timeline,v8,blink");
    expect(of([9])).toBeNull();
    expect(of([9, 8])).toBeNull();
    expect(of([])).toBeNull();
  });

  test("iids rebound after a state clear give their new names", () => {
    const { state, intern, of } = setup();
    intern(1, "a");
    intern(2, "b");
    expect(of([1, 2])).toBe("a,b");
    state.clear();
    intern(1, "c");
    intern(2, "a");
    expect(of([1, 2])).toBe("c,a");
    expect(of([2, 1])).toBe("a,c");
  });

  test("inline names are joined as given, and equal joins share one id", () => {
    const { intern, of } = setup();
    intern(1, "x");
    intern(2, "y");
    expect(of([], ["x", "y"])).toBe("x,y");
    expect(of([1, 2])).toBe("x,y");
    expect(of([], ["solo"])).toBe("solo");
  });
});
