/**
 * Linear-memory regions. The parsers allocate every buffer once, at init, from the end
 * of the static data; nothing is freed. The module's maximum memory (set at build time)
 * therefore bounds everything a parser can ever hold, whatever the input.
 */
let top: usize = 0;

export function regionsReset(): void {
  top = (__heap_base + 15) & ~(<usize>15);
}

/** Reserves `size` bytes (16-aligned); 0 when the memory maximum would be exceeded. */
export function region(size: usize): usize {
  const at = top;
  const end = (at + size + 15) & ~(<usize>15);
  const needPages = <i32>((end + 0xffff) >>> 16);
  const havePages = memory.size();
  if (needPages > havePages && memory.grow(needPages - havePages) < 0) return 0;
  top = end;
  return at;
}
