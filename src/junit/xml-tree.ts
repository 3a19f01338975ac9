/**
 * A small XML reader for test reports (layer 1, pure): elements, attributes, text, CDATA,
 * comments, processing instructions and the five named entities plus numeric references — what
 * JUnit XML writers emit. No DTDs, no namespaces resolved, no external entities (a `<!DOCTYPE`
 * is refused, so nothing can expand). It never throws: bad input is a structured error with the
 * offset where reading stopped. Bounded: at most {@link MAX_XML_DEPTH} open elements.
 */

/** One element: its name, attributes (entity references decoded) and children in order. */
export interface XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly XmlNode[];
}

/** A child: an element, or a run of text (CDATA and entity references decoded). */
export type XmlNode = XmlElement | string;

/** What {@link readXml} returns. */
export type XmlRead =
  | { readonly ok: true; readonly root: XmlElement }
  | { readonly ok: false; readonly error: string; readonly offset: number };

/** Most elements open at once (a report nests three or four). */
export const MAX_XML_DEPTH = 64;

const NAME = /[A-Za-z_:][-A-Za-z0-9_.:]*/y;
const ATTR = /\s+([A-Za-z_:][-A-Za-z0-9_.:]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/y;
const ENTITY = /&(?:#x([0-9A-Fa-f]{1,6})|#([0-9]{1,7})|(lt|gt|amp|quot|apos));/g;
const NAMED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * Decodes the entity references of a text or attribute value (unknown ones are kept as written).
 *
 * @example
 * ```ts
 * decodeEntities('a &lt;b&gt; &#38; &#x41;'); // 'a <b> & A'
 * ```
 */
export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(
    ENTITY,
    (whole, hex: string | undefined, dec: string | undefined, named: string | undefined) => {
      if (named !== undefined) return NAMED[named] ?? whole;
      const cp = hex !== undefined ? Number.parseInt(hex, 16) : Number(dec);
      return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : whole;
    },
  );
}

interface Open {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}

/**
 * Reads one XML document into its root element.
 *
 * @example
 * ```ts
 * const r = readXml('<testsuites><testcase name="a &amp; b"/></testsuites>');
 * if (r.ok) r.root.children; // [{ name: 'testcase', attrs: { name: 'a & b' }, children: [] }]
 * ```
 */
export function readXml(text: string): XmlRead {
  const fail = (error: string, offset: number): XmlRead => ({ ok: false, error, offset });
  const stack: Open[] = [];
  let root: XmlElement | null = null;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const addText = (t: string) => {
    const top = stack[stack.length - 1];
    if (top === undefined) {
      if (t.trim() !== '') return false;
      return true;
    }
    const last = top.children[top.children.length - 1];
    if (typeof last === 'string') top.children[top.children.length - 1] = last + t;
    else top.children.push(t);
    return true;
  };
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    const end = lt === -1 ? text.length : lt;
    if (end > i && !addText(decodeEntities(text.slice(i, end))))
      return fail('text outside the root element', i);
    if (lt === -1) break;
    i = lt;
    if (text.startsWith('<!--', i)) {
      const close = text.indexOf('-->', i + 4);
      if (close === -1) return fail('an unclosed comment', i);
      i = close + 3;
    } else if (text.startsWith('<![CDATA[', i)) {
      const close = text.indexOf(']]>', i + 9);
      if (close === -1) return fail('an unclosed CDATA section', i);
      if (!addText(text.slice(i + 9, close))) return fail('CDATA outside the root element', i);
      i = close + 3;
    } else if (text.startsWith('<?', i)) {
      const close = text.indexOf('?>', i + 2);
      if (close === -1) return fail('an unclosed processing instruction', i);
      i = close + 2;
    } else if (text.startsWith('<!', i)) {
      return fail('a DOCTYPE or declaration (not read: reports need none)', i);
    } else if (text.startsWith('</', i)) {
      NAME.lastIndex = i + 2;
      const m = NAME.exec(text);
      const top = stack.pop();
      if (m === null || top === undefined || m[0] !== top.name)
        return fail(`a closing tag that matches no open element${top ? ` (open: <${top.name}>)` : ''}`, i);
      let j = i + 2 + m[0].length;
      while (j < text.length && /\s/.test(text[j] as string)) j++;
      if (text[j] !== '>') return fail('a malformed closing tag', i);
      i = j + 1;
      const el: XmlElement = { name: top.name, attrs: top.attrs, children: top.children };
      const parent = stack[stack.length - 1];
      if (parent === undefined) root = el;
      else parent.children.push(el);
    } else {
      if (root !== null) return fail('a second root element', i);
      NAME.lastIndex = i + 1;
      const m = NAME.exec(text);
      if (m === null) return fail('a malformed tag', i);
      const attrs: Record<string, string> = Object.create(null);
      let j = i + 1 + m[0].length;
      for (;;) {
        ATTR.lastIndex = j;
        const a = ATTR.exec(text);
        if (a === null) break;
        const key = a[1] as string;
        if (Object.hasOwn(attrs, key)) return fail(`attribute ${key} repeated`, j);
        attrs[key] = decodeEntities(a[2] ?? a[3] ?? '');
        j = ATTR.lastIndex;
      }
      while (j < text.length && /\s/.test(text[j] as string)) j++;
      const selfClosing = text.startsWith('/>', j);
      if (!selfClosing && text[j] !== '>') return fail(`a malformed <${m[0]}> tag`, i);
      i = j + (selfClosing ? 2 : 1);
      if (selfClosing) {
        const el: XmlElement = { name: m[0], attrs, children: [] };
        const parent = stack[stack.length - 1];
        if (parent === undefined) root = el;
        else parent.children.push(el);
      } else {
        if (stack.length >= MAX_XML_DEPTH) return fail(`elements nested deeper than ${MAX_XML_DEPTH}`, i);
        stack.push({ name: m[0], attrs, children: [] });
      }
    }
  }
  if (stack.length > 0)
    return fail(`<${(stack[stack.length - 1] as Open).name}> is never closed`, text.length);
  if (root === null) return fail('no root element', text.length);
  return { ok: true, root };
}

/**
 * The text of an element's direct text children, joined.
 *
 * @example
 * ```ts
 * textOf({ name: 'failure', attrs: {}, children: ['boom'] }); // 'boom'
 * ```
 */
export function textOf(el: XmlElement): string {
  return el.children.filter((c): c is string => typeof c === 'string').join('');
}
