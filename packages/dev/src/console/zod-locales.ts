/**
 * Stands in for zod's `locales/index.js` in the console bundle: English only
 * (the messages zod configures by default), not 40 languages the page never
 * shows. Saves most of the script's size (docs/console.md, "Size").
 *
 * @module
 */
export { default as en } from 'zod/v4/locales/en.js';
