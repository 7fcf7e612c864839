// /docs follows the reader's light or dark system setting: Swagger UI's own dark theme is the `dark-mode`
// class on <html>. Loaded in <head>, so a dark reader never sees a light flash; it follows a change live.
const darkScheme = matchMedia('(prefers-color-scheme: dark)');
const followScheme = () => document.documentElement.classList.toggle('dark-mode', darkScheme.matches);
followScheme();
darkScheme.addEventListener('change', followScheme);
