import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-TQTSWKQU.js";import"./extension-chunk-VBWLKUBK.js";import"./extension-chunk-OODLHRJX.js";import"./extension-chunk-ZYI3QREG.js";import"./extension-chunk-M6KDLXM7.js";import"./extension-chunk-UNVSKE3H.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-I2KXAVOY.js.map
