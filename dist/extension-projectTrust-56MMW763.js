import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b,c,d,e}from"./extension-chunk-EXXPK3RW.js";import"./extension-chunk-FYHAR4LF.js";export{b as HOW_TO_TRUST,a as TRUST_REQUIRING_PI_ENTRIES,d as trustLine,c as trustVerdict,e as untrustedRunLine};
//# sourceMappingURL=extension-projectTrust-56MMW763.js.map
