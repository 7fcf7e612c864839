// The home page needs no script beyond the shared strings; this module exists so every page loads the same way.
export {};
