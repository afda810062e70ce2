import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{d as a,e as b,f as c,g as d,h as e}from"./pm-chunk-chunk-XQ6R4BKB.js";import"./pm-chunk-chunk-IFFEWHPN.js";import"./pm-chunk-chunk-O7HVLQKU.js";import"./pm-chunk-chunk-WTEIUIG2.js";import"./pm-chunk-chunk-DMUO2LP7.js";import"./pm-chunk-chunk-GHIZEOQ5.js";export{e as Sandbox,a as SandboxFailed,d as defaultSandbox,c as makeSandbox,b as sandboxAvailability};
//# sourceMappingURL=pm-chunk-Sandbox-G6X43MTZ.js.map
