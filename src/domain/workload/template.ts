/**
 * argv templates. Only an exact plain token such as `{size}` is substituted, and only
 * from a declared parameter; `{{` is a literal `{`; every other brace (JSON, format
 * strings) passes through untouched. There is no shell, environment or glob expansion:
 * a substituted value is one argv item's bytes, nothing more.
 */
const TOKEN = /^\{([A-Za-z_][A-Za-z0-9_]{0,63})\}/;

type Piece = { literal: string } | { parameter: string };

function pieces(item: string): Piece[] {
  const out: Piece[] = [];
  let literal = "";
  for (let i = 0; i < item.length; ) {
    if (item.startsWith("{{", i)) {
      literal += "{";
      i += 2;
      continue;
    }
    const token = item[i] === "{" ? TOKEN.exec(item.slice(i, i + 66)) : null;
    if (token) {
      if (literal) out.push({ literal });
      literal = "";
      out.push({ parameter: token[1]! });
      i += token[0].length;
      continue;
    }
    literal += item[i];
    i += 1;
  }
  if (literal) out.push({ literal });
  return out;
}

/** The parameter names an argv item refers to, in order of appearance. */
export function templateParameters(item: string): string[] {
  return pieces(item).flatMap((p) => ("parameter" in p ? [p.parameter] : []));
}

/** Expands one argv item; every referenced parameter must have a value (checked by the caller). */
export function expandTemplate(item: string, values: Readonly<Record<string, string>>): string {
  return pieces(item)
    .map((p) => {
      if ("literal" in p) return p.literal;
      const value = values[p.parameter];
      if (value === undefined)
        throw new TypeError(`Cannot expand {${p.parameter}}: the parameter has no value`);
      return value;
    })
    .join("");
}

/** How a scalar parameter value becomes argv text: integers in decimal, booleans as true/false. */
export function scalarText(value: string | number | boolean): string {
  return typeof value === "string" ? value : String(value);
}
