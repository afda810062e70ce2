import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{d as a,e as b,f as c,g as d,h as e}from"./pm-chunk-chunk-33MKJ74Q.js";import"./pm-chunk-chunk-NDEOVQWG.js";import"./pm-chunk-chunk-CBQKYTTV.js";import"./pm-chunk-chunk-WTEIUIG2.js";import"./pm-chunk-chunk-DMUO2LP7.js";import"./pm-chunk-chunk-GHIZEOQ5.js";export{e as Sandbox,a as SandboxFailed,d as defaultSandbox,c as makeSandbox,b as sandboxAvailability};
//# sourceMappingURL=pm-chunk-Sandbox-SZMUSPTX.js.map
