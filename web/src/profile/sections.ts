/** The sections whose changes need the owner's proof: the confirmation panel shows above them. */
const SENSITIVE = new Set(['signin', 'security', 'data']);

/**
 * One section of the profile at a time, named by the address's fragment (`/profile#security`), so the
 * back button and a shared link work. The side list (wide screens) and the menu (phones) both set the
 * fragment and show which section is open. `onOpen` hears each section opened.
 */
export function profileSections(onOpen: (name: string, sensitive: boolean) => void): void {
  const sections = Array.from(document.querySelectorAll<HTMLElement>('.profile-section'));
  const names = sections.map((section) => section.id.replace(/^section-/, ''));
  const links = Array.from(document.querySelectorAll<HTMLAnchorElement>('[data-section-link]'));
  const menu = document.getElementById('section-menu') as HTMLSelectElement;

  function open(): void {
    const wanted = location.hash.slice(1);
    const name = names.includes(wanted) ? wanted : (names[0] ?? '');
    for (const section of sections) section.hidden = section.id !== `section-${name}`;
    for (const link of links) {
      if (link.dataset.sectionLink === name) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    menu.value = name;
    onOpen(name, SENSITIVE.has(name));
  }

  menu.addEventListener('change', () => {
    location.hash = menu.value;
  });
  window.addEventListener('hashchange', () => {
    open();
    // The section starts where the page does, not at the (hidden) element the fragment named.
    window.scrollTo({ top: 0 });
  });
  open();
}
