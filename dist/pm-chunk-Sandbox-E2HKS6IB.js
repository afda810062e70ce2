import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{d as a,e as b,f as c,g as d,h as e}from"./pm-chunk-chunk-C4TZS5UG.js";import"./pm-chunk-chunk-IFFEWHPN.js";import"./pm-chunk-chunk-O7HVLQKU.js";import"./pm-chunk-chunk-P7XYPORM.js";import"./pm-chunk-chunk-PAG3TSC6.js";import"./pm-chunk-chunk-MFIVONNS.js";export{e as Sandbox,a as SandboxFailed,d as defaultSandbox,c as makeSandbox,b as sandboxAvailability};
//# sourceMappingURL=pm-chunk-Sandbox-E2HKS6IB.js.map
