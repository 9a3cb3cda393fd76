// express4 is an npm alias of express 4 without its own types; its request
// handler shape is what the tests need, and it matches express 5's.
declare module 'express4' {
  import type express from 'express';
  const express4: typeof express;
  export default express4;
}
