import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{d as a,e as b,f as c,g as d,h as e}from"./pm-chunk-chunk-2TELOADF.js";import"./pm-chunk-chunk-DWZO22G5.js";import"./pm-chunk-chunk-EF7I4THE.js";import"./pm-chunk-chunk-XIPI73RA.js";import"./pm-chunk-chunk-PSATKD7A.js";import"./pm-chunk-chunk-FW5EH3XW.js";import"./pm-chunk-chunk-H7JGJB5H.js";export{e as Sandbox,a as SandboxFailed,d as defaultSandbox,c as makeSandbox,b as sandboxAvailability};
//# sourceMappingURL=pm-chunk-Sandbox-7P3F3652.js.map
