import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{C as a,D as b}from"./extension-chunk-SOM6BNBT.js";import"./extension-chunk-VBWLKUBK.js";import"./extension-chunk-KJ5U6MNE.js";import"./extension-chunk-D7IURK5U.js";import"./extension-chunk-UNVSKE3H.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-Q5P7XIKK.js.map
