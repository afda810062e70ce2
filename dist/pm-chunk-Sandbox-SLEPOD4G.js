import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{d as a,e as b,f as c,g as d,h as e}from"./pm-chunk-chunk-EDVSLRB3.js";import"./pm-chunk-chunk-IFFEWHPN.js";import"./pm-chunk-chunk-O7HVLQKU.js";import"./pm-chunk-chunk-FRVK4RVN.js";import"./pm-chunk-chunk-YJSIB6XM.js";import"./pm-chunk-chunk-LY4OJAPP.js";export{e as Sandbox,a as SandboxFailed,d as defaultSandbox,c as makeSandbox,b as sandboxAvailability};
//# sourceMappingURL=pm-chunk-Sandbox-SLEPOD4G.js.map
