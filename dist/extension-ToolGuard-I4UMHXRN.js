import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-RWPWHUHQ.js";import"./extension-chunk-FRLUJJQ2.js";import"./extension-chunk-MNVHR6LT.js";import"./extension-chunk-DSX657K3.js";import"./extension-chunk-GOTU2QXM.js";import"./extension-chunk-4AJF5N5E.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-I4UMHXRN.js.map
