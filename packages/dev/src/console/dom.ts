/**
 * The few DOM builders the console's views share.
 *
 * @module
 */

/** A `type="button"` button with a class and a click handler. */
export function button(text: string, className: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = className;
  b.textContent = text;
  b.addEventListener('click', onClick);
  return b;
}
