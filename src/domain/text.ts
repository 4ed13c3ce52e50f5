/**
 * What text termin accepts and how it is made safe where it is shown. Two kinds of field:
 *
 * - single-line (names, e-mails, phones, usernames, codes, labels): no C0 control character
 *   (U+0000–U+001F, so no CR, LF or TAB) and no DEL (U+007F);
 * - multi-line (a note, a description, a reason, free-form answers): TAB, LF and CR are
 *   fine, every other C0 control and DEL is not.
 *
 * U+0000 is thereby refused everywhere: PostgreSQL `text` cannot hold it, SQLite can, and
 * the two databases must accept the same input.
 *
 * `isSingleLineText('Anna Nowak')` → true; `isSingleLineText('Anna\nBcc: x')` → false;
 * `isMultiLineText('line 1\nline 2')` → true; `isMultiLineText('a\u0000')` → false.
 */

/** A character no single line of text may hold. */
export const SINGLE_LINE_FORBIDDEN = /[\u0000-\u001F\u007F]/;
/** A character no text may hold, even one that spans lines. */
export const MULTI_LINE_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

export function isSingleLineText(value: string): boolean {
  return !SINGLE_LINE_FORBIDDEN.test(value);
}

export function isMultiLineText(value: string): boolean {
  return !MULTI_LINE_FORBIDDEN.test(value);
}

/**
 * Line breaks as Unicode knows them, and every control character: what must not survive in
 * a value shown on one line (an e-mail header, a `Label: value` line of a text body, an
 * iCalendar parameter). C1 controls (U+0080–U+009F) include NEL, which some software
 * breaks lines at; U+2028/U+2029 are the Unicode line and paragraph separators.
 */
const LINE_BREAKING = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g;

/**
 * A value made safe to show on one line: every run of control characters and line breaks
 * becomes one space, and the ends are trimmed. Stored data is shown this way even when it
 * predates today's validation. `toSingleLine('Eve\r\nBcc: x@evil.test')` → `'Eve Bcc: x@evil.test'`.
 */
export function toSingleLine(value: string): string {
  return value.replace(LINE_BREAKING, ' ').trim();
}

/**
 * Multi-line text as lines: CRLF, CR, NEL and U+2028/U+2029 all break lines, other control
 * characters are dropped, trailing blank lines go. `toTextLines('a\r\nb\u0000c')` → `['a', 'bc']`.
 */
export function toTextLines(value: string): string[] {
  const lines = value
    .replace(/\r\n?|[\u0085\u2028\u2029]/g, '\n')
    .replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, '')
    .split('\n')
    .map((line) => line.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * An RFC 5545 parameter value (`CN="…"`): quoted, so `;`, `:` and `,` are harmless, but
 * it may hold no DQUOTE and no control character (section 3.1: `QSAFE-CHAR`), and the
 * grammar has no escape for them. Line breaks become spaces, `"` becomes `'`, and a
 * backslash becomes `/` because some writers (ical-generator) escape it as `\\`, which
 * readers then show differently. `toParameterValue('Eve";ROLE=CHAIR')` → `"Eve';ROLE=CHAIR"`.
 */
export function toParameterValue(value: string): string {
  return toSingleLine(value).replaceAll('"', "'").replaceAll('\\', '/');
}

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an HTML element or attribute: `escapeHtml('<b>"A&B"</b>')` → `'&lt;b&gt;&quot;A&amp;B&quot;&lt;/b&gt;'`. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]!);
}

/**
 * Plain text as HTML with its http(s) links made clickable and everything else escaped; a
 * line break becomes `<br>`. A link ends at white space or `<`, and trailing punctuation
 * (`.`, `,`, `)`, …) stays text, so "see https://a.test/x." links `https://a.test/x`.
 * `linkifyText('Bring ID <b>: https://a.test/x.')` →
 * `'Bring ID &lt;b&gt;: <a href="https://a.test/x">https://a.test/x</a>.'`
 */
export function linkifyText(value: string, linkStyle = ''): string {
  const style = linkStyle === '' ? '' : ` style="${escapeHtml(linkStyle)}"`;
  return toTextLines(value)
    .map((line) =>
      line
        .split(/(https?:\/\/[^\s<>"]+)/g)
        .map((part, index) => {
          if (index % 2 === 0) return escapeHtml(part);
          const trailing = /[.,;:!?)\]'}]+$/.exec(part)?.[0] ?? '';
          const url = part.slice(0, part.length - trailing.length);
          return `<a href="${escapeHtml(url)}"${style}>${escapeHtml(url)}</a>${escapeHtml(trailing)}`;
        })
        .join(''),
    )
    .join('<br>\n');
}
