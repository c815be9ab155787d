// A table cell that also reads as a line of a card: on a phone (style.css, `.stack`) each
// row is a card and each cell shows its column's name before its value, so no table
// scrolls sideways. The value is one box, so the name and the value make two columns.
import type { ComponentChildren } from 'preact';

export function Cell({ label, children, class: cls, title, wideOnly }: { label: string; children?: ComponentChildren; class?: string; title?: string; wideOnly?: boolean }) {
  const classes = [cls, wideOnly ? 'wide-only' : ''].filter(Boolean).join(' ') || undefined;
  return <td data-label={label} class={classes} title={title}><div class="cell">{children}</div></td>;
}
