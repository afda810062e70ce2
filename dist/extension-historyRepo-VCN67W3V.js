import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{q as a,r as b,s as c,t as d,u as e,v as f}from"./extension-chunk-KVX46XXZ.js";import"./extension-chunk-MNVHR6LT.js";import"./extension-chunk-W6G2ATXT.js";import"./extension-chunk-TKE4I3RN.js";import"./extension-chunk-FYHAR4LF.js";export{b as activeRepo,f as commitAll,e as commitStaged,c as initRepo,d as reconcile,a as repoOf};
//# sourceMappingURL=extension-historyRepo-VCN67W3V.js.map
