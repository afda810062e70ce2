import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{c as a,d as b}from"./pm-chunk-chunk-BFGE6ZDO.js";import"./pm-chunk-chunk-GSFAHAU5.js";import"./pm-chunk-chunk-H7XLW7H6.js";import"./pm-chunk-chunk-7OSXLN24.js";import"./pm-chunk-chunk-HMOMGMYY.js";import"./pm-chunk-chunk-QTYYSKGY.js";import"./pm-chunk-chunk-WTEIUIG2.js";import"./pm-chunk-chunk-DMUO2LP7.js";import"./pm-chunk-chunk-GHIZEOQ5.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=pm-chunk-MemoryWriter-6RKZH7J3.js.map
