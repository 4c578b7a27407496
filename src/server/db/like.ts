/** Patterns for LIKE built from what someone typed: their "50%" matches the text "50%" and nothing else. */

/** Escapes LIKE's wildcards (and its escape character) in `text`. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A LIKE pattern for text holding `text` anywhere, as written. */
export function containing(text: string): string {
  return `%${escapeLike(text)}%`;
}

/** A LIKE pattern for text starting with `text`. */
export function startingWith(text: string): string {
  return `${escapeLike(text)}%`;
}
