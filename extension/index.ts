// Pi extension entry (filled in by the extension issue).
export default function piProjectMemory(): void {}
