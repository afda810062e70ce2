import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{d as a,e as b,f as c,g as d,h as e}from"./pm-chunk-chunk-RHJAJV55.js";import"./pm-chunk-chunk-BE6CVPFQ.js";import"./pm-chunk-chunk-M5KAUD7R.js";import"./pm-chunk-chunk-WTEIUIG2.js";import"./pm-chunk-chunk-DMUO2LP7.js";import"./pm-chunk-chunk-GHIZEOQ5.js";export{e as Sandbox,a as SandboxFailed,d as defaultSandbox,c as makeSandbox,b as sandboxAvailability};
//# sourceMappingURL=pm-chunk-Sandbox-MEX22W7P.js.map
