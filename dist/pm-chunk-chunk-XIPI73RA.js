import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a as s}from"./pm-chunk-chunk-H7JGJB5H.js";var r,t=()=>r??=s("./secrets-detector.cjs"),c=(...e)=>t().detectSecrets(...e),o=(...e)=>t().detectSecretSpans(...e),a=(...e)=>t().secretLabel(...e),n=(...e)=>t().secretRefusalReason(...e),p=(...e)=>t().startsBefore(...e);export{c as a,o as b,a as c,n as d,p as e};
//# sourceMappingURL=pm-chunk-chunk-XIPI73RA.js.map
