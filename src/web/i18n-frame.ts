/**
 * The words of the pages around the product's own: the 404 page a browser gets for an unknown address, and
 * the frame of the API docs (/docs) around Swagger UI. i18n.ts merges them into each page's messages.
 */
export const FRAME_ENGLISH = {
  'notfound.title': 'Page not found',
  'notfound.lead': 'There is no page at this address. It may have moved, or the link may be mistyped.',
  'notfound.home': 'Go to the home page',
  'docs.title': 'API docs',
  'docs.lead': 'Every endpoint of the accounts API, with its parameters and answers, from /openapi.json.',
} as const;

export type FrameMessageKey = keyof typeof FRAME_ENGLISH;

export const FRAME_KOREAN: Record<FrameMessageKey, string> = {
  'notfound.title': '페이지를 찾을 수 없습니다',
  'notfound.lead': '이 주소에는 페이지가 없습니다. 옮겨졌거나 링크가 잘못 입력되었을 수 있습니다.',
  'notfound.home': '홈으로 가기',
  'docs.title': 'API 문서',
  'docs.lead': '계정 API의 모든 엔드포인트와 매개변수, 응답을 /openapi.json에서 보여 줍니다.',
};
