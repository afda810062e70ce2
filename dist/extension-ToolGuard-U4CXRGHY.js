import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-KE2ZAGWG.js";import"./extension-chunk-JVUBVCDA.js";import"./extension-chunk-CAKMSAPD.js";import"./extension-chunk-EA6RJCDX.js";import"./extension-chunk-UNVSKE3H.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-U4CXRGHY.js.map
