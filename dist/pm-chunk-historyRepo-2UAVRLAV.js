import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{i as a,j as b,k as c,l as d,m as e,n as f}from"./pm-chunk-chunk-ZNVFR7QD.js";import"./pm-chunk-chunk-EMH7HCXR.js";import"./pm-chunk-chunk-ZUR6COVT.js";import"./pm-chunk-chunk-7ROIYRMM.js";import"./pm-chunk-chunk-QEQYTJYH.js";import"./pm-chunk-chunk-PSATKD7A.js";import"./pm-chunk-chunk-H7JGJB5H.js";export{b as activeRepo,f as commitAll,e as commitStaged,c as initRepo,d as reconcile,a as repoOf};
//# sourceMappingURL=pm-chunk-historyRepo-2UAVRLAV.js.map
